import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_14_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-14-0'
    return [line.qty * factor for line in cart.lines]


def step_14_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-14-1'
    return [line.qty * factor for line in cart.lines]


def step_14_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-14-2'
    return [line.qty * factor for line in cart.lines]


def step_14_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-14-3'
    return [line.qty * factor for line in cart.lines]

