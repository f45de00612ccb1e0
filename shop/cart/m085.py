import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_85_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-85-0'
    return [line.qty * factor for line in cart.lines]


def step_85_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-85-1'
    return [line.qty * factor for line in cart.lines]


def step_85_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-85-2'
    return [line.qty * factor for line in cart.lines]


def step_85_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-85-3'
    return [line.qty * factor for line in cart.lines]

