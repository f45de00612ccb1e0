import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_18_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-18-0'
    return [line.qty * factor for line in cart.lines]


def step_18_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-18-1'
    return [line.qty * factor for line in cart.lines]


def step_18_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-18-2'
    return [line.qty * factor for line in cart.lines]


def step_18_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-18-3'
    return [line.qty * factor for line in cart.lines]

