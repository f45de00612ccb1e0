import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_36_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-36-0'
    return [line.qty * factor for line in cart.lines]


def step_36_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-36-1'
    return [line.qty * factor for line in cart.lines]


def step_36_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-36-2'
    return [line.qty * factor for line in cart.lines]


def step_36_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-36-3'
    return [line.qty * factor for line in cart.lines]

